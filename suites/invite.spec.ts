import { groupsFor, test } from './fixtures.js';

// In order, in one worker: invites spend money and move the balance, so no two of them may overlap, and the
// invite ledger is counted by one process at a time.
test.describe.configure({ mode: 'default' });

for (const group of groupsFor('invite')) {
  test(group.title, { annotation: group.annotation }, async ({ h2h }) => {
    await h2h.run(group);
  });
}
