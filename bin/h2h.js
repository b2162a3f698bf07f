#!/usr/bin/env node
// Runs the TypeScript CLI through tsx's loader (Node 20 has no type stripping).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
