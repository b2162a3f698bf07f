// Preloaded into a CLI process by a test (NODE_OPTIONS=--require): when the process exits, its peak resident set
// size (VmHWM of /proc/self/status, in kB) is appended to the file H2H_TEST_PEAK_FILE names, one line per process
// (children started with the same environment report too). A process that dies without exiting (a crash of V8)
// writes nothing, and the test that reads the file fails.
const { appendFileSync, readFileSync } = require('node:fs');

const file = process.env.H2H_TEST_PEAK_FILE;
if (file)
  process.on('exit', () => {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (kb) appendFileSync(file, `${process.pid} ${kb} ${process.argv.slice(1, 3).join(' ')}\n`);
  });
