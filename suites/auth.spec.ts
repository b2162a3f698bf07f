import { scenariosFor, test } from './fixtures.ts';

for (const { scenario, annotation } of scenariosFor('auth')) {
  test(scenario.title, { annotation }, async ({ h2h }) => {
    await h2h.run(scenario);
  });
}
