import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { suite } from './suites/server.js';
const tmpDir = mkdtempSync(path.join(os.tmpdir(), 'bench-server-'));
const figures = await suite.run({ runs: Number(process.argv[2] ?? 1), full: false, tmpDir, log: (m) => console.log(m) });
for (const f of figures) console.log(f.id, f.runs.map((r) => Math.round(r * 10) / 10).join(' '));
rmSync(tmpDir, { recursive: true, force: true });
