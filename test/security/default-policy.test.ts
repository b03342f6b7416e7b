import assert from 'node:assert/strict';
import { defaultRules } from '../../src/security/policy/default-policy.js';
import { isRisky, riskyTypes } from '../../src/telemetry/window-facts.js';

describe('the default policy and the risky types the windows count (window-facts.ts)', function () {
  it('gives each risky type, and no other, a block that matches its every event in a rule that does not allow', function () {
    const typeAlone = defaultRules
      .filter(({ decision }) => decision !== 'allow')
      .flatMap(({ match }) => match.filter((block) => Object.keys(block).join() === 'event_types'))
      .flatMap((block) => block.event_types ?? []);
    assert.deepEqual([...typeAlone].sort(), [...riskyTypes].sort());
    for (const type of riskyTypes) assert.equal(isRisky(type, {}), true, type);
  });
});
