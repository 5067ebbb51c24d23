'use strict';
// Preload (`node --require bench/usage-hook.cjs …`) for the benches that time the CLI: at exit, adds this
// process's CPU time to the file named by TASKWRIGHT_USAGE_FILE and keeps the larger peak RSS (all
// threads). On Linux bin/taskwright.js runs `audit` in a child process, which inherits the preload: the
// child writes first, the launcher adds its own share.
const file = process.env.TASKWRIGHT_USAGE_FILE;
if (file) {
  process.on('exit', () => {
    const fs = require('node:fs');
    const r = process.resourceUsage();
    let prev = { cpu: 0, rss: 0 };
    try { prev = JSON.parse(fs.readFileSync(file, 'utf8')); } catch { /* the first process to finish */ }
    fs.writeFileSync(file, JSON.stringify({ cpu: prev.cpu + (r.userCPUTime + r.systemCPUTime) / 1e6, rss: Math.max(prev.rss, r.maxRSS / 1024) }));
  });
}
