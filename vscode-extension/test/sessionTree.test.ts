import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionTreeResult, TreeNode } from '../src/protocol.generated';
import {
  ago,
  branchTargets,
  chainFrom,
  indexTree,
  itemChildren,
  nodeDisplay,
  sessionChildren,
} from '../src/model/sessionTree';

function tree(edges: Array<[string, string | null]>, leafId: string | null, onPath: string[] = []): SessionTreeResult {
  const nodes: TreeNode[] = edges.map(([id, parentId]) => ({
    id,
    parentId,
    type: 'message',
    role: 'user',
    preview: `text ${id}`,
    children: edges.filter(([, p]) => p === id).map(([c]) => c),
    onActivePath: onPath.includes(id),
  }));
  return { session: '/s.jsonl', leafId, roots: edges.filter(([, p]) => p === null).map(([id]) => id), nodes };
}

test('a chain without branches is one flat list under the session', () => {
  const index = indexTree(tree([['a', null], ['b', 'a'], ['c', 'b']], 'c'));
  assert.deepEqual(
    sessionChildren(index).map((k) => k.id),
    ['a', 'b', 'c'],
  );
  assert.deepEqual(itemChildren(index, { kind: 'inChain', id: 'b' }), []);
});

test('a branch point opens one nested list per branch', () => {
  const index = indexTree(tree([['a', null], ['b', 'a'], ['x1', 'b'], ['x2', 'x1'], ['y1', 'b']], 'x2'));
  assert.deepEqual(
    sessionChildren(index).map((k) => k.id),
    ['a', 'b'],
  );
  const branches = itemChildren(index, { kind: 'inChain', id: 'b' });
  assert.deepEqual(branches, [
    { kind: 'head', id: 'x1' },
    { kind: 'head', id: 'y1' },
  ]);
  assert.deepEqual(itemChildren(index, { kind: 'head', id: 'x1' }), [{ kind: 'inChain', id: 'x2' }]);
  assert.deepEqual(itemChildren(index, { kind: 'head', id: 'y1' }), []);
});

test('children come from parent links when the nodes do not list them', () => {
  const t = tree([['a', null], ['b', 'a']], 'b');
  for (const n of t.nodes) {
    delete n.children;
  }
  assert.deepEqual(chainFrom(indexTree(t), 'a'), ['a', 'b']);
});

test('a cycle in a corrupt tree ends the chain instead of looping', () => {
  const t = tree([['a', null], ['b', 'a']], 'b');
  const b = t.nodes[1] as TreeNode;
  b.children = ['a'];
  assert.deepEqual(chainFrom(indexTree(t), 'a'), ['a', 'b']);
});

test('the current leaf and branch counts are in the description', () => {
  const index = indexTree(tree([['a', null], ['b', 'a'], ['c', 'a']], 'b'));
  assert.match(nodeDisplay(index, 'b').description, /current leaf/);
  assert.match(nodeDisplay(index, 'a').description, /2 branches/);
  assert.equal(nodeDisplay(index, 'a').label, 'user: text a');
});

test('branch targets exclude the leaf and list the active path first, newest first', () => {
  const index = indexTree(tree([['a', null], ['b', 'a'], ['c', 'b'], ['d', 'a']], 'c', ['a', 'b', 'c']));
  assert.deepEqual(
    branchTargets(index).map((n) => n.id),
    ['b', 'a', 'd'],
  );
});

test('ages are rounded to the largest sensible unit', () => {
  assert.equal(ago(30), 'just now');
  assert.equal(ago(180), '3 min ago');
  assert.equal(ago(7200), '2 h ago');
  assert.equal(ago(86400 * 3), '3 days ago');
});
