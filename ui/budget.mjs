// Checks the initial-JS budget from a build's manifest: the entry and its static imports, gzipped, at most 300 KB.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

const dir = process.argv[2] ?? "dist";
const limit = 300 * 1024;
const manifest = JSON.parse(readFileSync(join(dir, ".vite/manifest.json"), "utf8"));
const seen = new Set();
const visit = (key) => {
  if (seen.has(key)) return;
  seen.add(key);
  for (const dep of manifest[key]?.imports ?? []) visit(dep);
};
for (const [key, chunk] of Object.entries(manifest)) if (chunk.isEntry) visit(key);
let total = 0;
for (const key of seen) {
  const file = manifest[key].file;
  if (file.endsWith(".js")) total += gzipSync(readFileSync(join(dir, file)), { level: 9 }).length;
}
const kb = (total / 1024).toFixed(1);
if (total > limit) {
  console.error(`ui budget: initial JS is ${kb} KB gzipped, over the 300 KB budget`);
  process.exit(1);
}
console.log(`ui budget: initial JS ${kb} KB gzipped (budget 300 KB)`);
