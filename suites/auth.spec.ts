import { groupsFor, test } from './fixtures.js';

for (const group of groupsFor('auth')) {
  test(group.title, { annotation: group.annotation }, async ({ h2h }) => {
    await h2h.run(group);
  });
}
