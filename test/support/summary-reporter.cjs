'use strict';
// Mocha's spec reporter plus the closing line CI reads: "N passed, N failed, N skipped" alone on a
// line. Under run-suites.mjs (PROVD_TEST_COUNTS_FILE set), the counts go to that file instead, and
// the runner prints one line for all its mocha runs, and the files that took longest.
const { appendFileSync } = require('node:fs');
const Mocha = require('mocha');

const { EVENT_RUN_END, EVENT_TEST_END, EVENT_HOOK_END } = Mocha.Runner.constants;

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    // each file's time: its tests' and hooks' durations summed (both reach the reporter with their
    // file and duration from mocha's parallel workers too, where events arrive after the file ended)
    const msByFile = {};
    const add = (runnable) => {
      if (runnable.file && runnable.duration > 0)
        msByFile[runnable.file] = (msByFile[runnable.file] ?? 0) + runnable.duration;
    };
    runner.on(EVENT_TEST_END, add);
    runner.on(EVENT_HOOK_END, add);
    runner.once(EVENT_RUN_END, () => {
      const { passes, failures, pending } = runner.stats;
      const countsFile = process.env.PROVD_TEST_COUNTS_FILE;
      if (countsFile)
        appendFileSync(countsFile, JSON.stringify({ passes, failures, pending, msByFile }) + '\n');
      else process.stdout.write(`\n${passes} passed, ${failures} failed, ${pending} skipped\n`);
    });
  }
}

module.exports = SummaryReporter;
