'use strict';
// Mocha's spec reporter plus the closing line CI reads: "N passed, N failed, N skipped" alone on a
// line. Under run-suites.mjs (PROVD_TEST_COUNTS_FILE set), the counts go to that file instead, and
// the runner prints one line for all its mocha runs.
const { appendFileSync } = require('node:fs');
const Mocha = require('mocha');

const { EVENT_RUN_END } = Mocha.Runner.constants;

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(EVENT_RUN_END, () => {
      const { passes, failures, pending } = runner.stats;
      const countsFile = process.env.PROVD_TEST_COUNTS_FILE;
      if (countsFile) appendFileSync(countsFile, JSON.stringify({ passes, failures, pending }) + '\n');
      else process.stdout.write(`\n${passes} passed, ${failures} failed, ${pending} skipped\n`);
    });
  }
}

module.exports = SummaryReporter;
