// Builds the floor page (bench/ui/keys) with the app's own node_modules, into $KEYS_OUT.
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
const here = dirname(fileURLToPath(import.meta.url));
export default {
  root: here,
  base: "./",
  logLevel: "warn",
  resolve: { alias: { "@codemirror": resolve(here, "../../../ui/node_modules/@codemirror") } },
  build: { outDir: process.env.KEYS_OUT, emptyOutDir: true, target: "es2022", modulePreload: { polyfill: false }, rollupOptions: { input: resolve(here, "floor.html") } },
};
