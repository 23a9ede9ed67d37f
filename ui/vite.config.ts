// The build: `ui/dist` with hashed assets and `.vite/manifest.json` (the budget check reads it); reproducible.
import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";

declare const process: { env: Record<string, string | undefined> };

export default defineConfig({
  plugins: [react()],
  base: "/",
  build: {
    outDir: process.env.RHO_UI_OUT ?? "dist",
    emptyOutDir: true,
    manifest: true,
    sourcemap: false,
    target: "es2022",
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 1200,
  },
  test: {
    include: ["tests/**/*.test.ts"],
    environment: "node",
  },
});
