import { defineConfig } from "vite";
import { solidStart } from "@solidjs/start/config";
import { nitro } from "nitro/vite";

export default defineConfig({
  plugins: [
    solidStart({ middleware: "./src/middleware.ts" }),
    nitro({ preset: "node-server", traceDeps: ["libauth*"] }),
  ],
  // libauth loads a native addon: keep it out of the server bundle and load
  // it from node_modules at run time.
  ssr: { external: ["libauth"] },
  // `libauth` is a `file:` link into the repository; keep its node_modules
  // path so Nitro treats it as a dependency (traced and copied to
  // .output/server/node_modules with its addon) rather than as app source.
  resolve: { preserveSymlinks: true },
});
