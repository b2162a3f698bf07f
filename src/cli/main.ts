import { main } from './h2h.js';

process.exitCode = await main(process.argv.slice(2));
