import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The dashboard's build: `npm start` runs it through local/dashboard.ts into dist/ (not committed).
// With `npx vite web/dashboard`, /config.json comes from the local runtime (API_URL, default :3000).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, manifest: true, target: 'es2022', chunkSizeWarningLimit: 450 },
  server: { port: 3201, proxy: { '/config.json': process.env.API_URL ?? 'http://127.0.0.1:3000' } },
});
