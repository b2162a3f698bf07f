// A StrykerJS ignorer for `npm run mutation`: code of the reference simulator that runs only under a fault. Each
// fault is a deliberate mutant of the simulator already, judged by the mutation self-test (test/mutation.test.ts:
// the gate names exactly its clauses); its code is not what decides the reference reading's answers. Ignored:
// which fault is on (`this.faultOn(...)`, `this.fault...`), a `&&` chain that starts with one (false without a
// fault), and the branch an `if` or a `?:` takes only when its test starts with one. Everything else is mutated.
import { declareValuePlugin, PluginKind } from '@stryker-mutator/api/plugin';

/** Whether a node asks which fault is on: `this.faultOn(...)`, `this.fault...`, `state.fault...`. */
function asksFault(node) {
  if (!node) return false;
  if (node.type === 'CallExpression') return asksFault(node.callee);
  if (node.type === 'MemberExpression' || node.type === 'OptionalMemberExpression') {
    const name = node.property?.name;
    if (name === 'faultOn' || name === 'fault') return true;
    return asksFault(node.object);
  }
  if (node.type === 'OptionalCallExpression') return asksFault(node.callee);
  if (node.type === 'BinaryExpression') return asksFault(node.left);
  return false;
}

/** Whether a test is true only under a fault: a fault asked, or a `&&` chain that starts with one. */
function onlyUnderFault(node) {
  if (!node) return false;
  if (node.type === 'LogicalExpression' && node.operator === '&&') return onlyUnderFault(node.left);
  if (node.type === 'LogicalExpression' && node.operator === '||')
    return onlyUnderFault(node.left) && onlyUnderFault(node.right);
  return asksFault(node);
}

const REASON = 'fault code: runs only under a fault, which the mutation self-test judges';

export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, 'fault-code', {
    shouldIgnore(path) {
      const node = path.node;
      if (onlyUnderFault(node)) return REASON;
      const parent = path.parent;
      if (
        (parent?.type === 'IfStatement' || parent?.type === 'ConditionalExpression') &&
        parent.consequent === node &&
        onlyUnderFault(parent.test)
      )
        return REASON;
      return undefined;
    },
  }),
];
