import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IdTable } from '../../src/engine/id-table.js';

test('IdTable: counting ids come and go as a Map would, whatever number are in flight', () => {
  const t = new IdTable<string>();
  const shadow = new Map<number, string>();
  // 40 in flight at a time, 5,000 ids: every slot is reused many times over, and it grows past 8.
  for (let id = 1; id <= 5000; id++) {
    t.set(id, `v${id}`);
    shadow.set(id, `v${id}`);
    if (id > 40) {
      assert.equal(t.delete(id - 40), true);
      shadow.delete(id - 40);
    }
    assert.equal(t.size, shadow.size);
  }
  for (let id = 1; id <= 5000; id++) assert.equal(t.get(id), shadow.get(id), `id ${id}`);
  assert.deepEqual(
    t.entries().sort((a, b) => Number(a[0]) - Number(b[0])),
    [...shadow].sort((a, b) => a[0] - b[0]),
  );
});

test('IdTable: an id whose slot is held by an older request still in flight is kept beside it, not over it', () => {
  const t = new IdTable<string>();
  t.set(1, 'long-running');
  // 1 + 8 lands on 1's slot while 1 is in flight (8 slots, half full at most before growing).
  for (let id = 2; id <= 200; id++) {
    t.set(id, `short ${id}`);
    t.delete(id);
  }
  assert.equal(t.get(1), 'long-running');
  assert.equal(t.size, 1);
  t.set(257, 'clash');
  assert.equal(t.get(1), 'long-running');
  assert.equal(t.get(257), 'clash');
  assert.equal(t.size, 2);
  assert.equal(t.delete(257), true);
  assert.equal(t.get(257), undefined);
  assert.equal(t.get(1), 'long-running');
});

test("IdTable: a peer's string ids, negative, fractional and huge ids are kept too, each apart from the number it spells", () => {
  const t = new IdTable<string>();
  const ids = ['1', 'abc', -1, 1.5, 2 ** 40, 0, 1];
  for (const id of ids) t.set(id, `v${String(id)}`);
  for (const id of ids) assert.equal(t.get(id), `v${String(id)}`);
  assert.equal(t.size, ids.length);
  assert.equal(t.get('0'), undefined);
  assert.equal(t.delete('1'), true);
  assert.equal(t.get(1), 'v1');
  assert.equal(t.delete('missing'), false);
  assert.equal(t.delete(99), false);
});

test('IdTable: setting an id again replaces its value; emptied after a burst it shrinks back and still works', () => {
  const t = new IdTable<number>();
  t.set(3, 1);
  t.set(3, 2);
  assert.equal(t.size, 1);
  assert.equal(t.get(3), 2);
  for (let id = 10; id < 1010; id++) t.set(id, id);
  for (let id = 10; id < 1010; id++) assert.equal(t.delete(id), true);
  t.delete(3);
  assert.equal(t.size, 0);
  assert.deepEqual(t.entries(), []);
  t.set(5000, 7);
  assert.equal(t.get(5000), 7);
  t.clear();
  assert.equal(t.size, 0);
  assert.equal(t.get(5000), undefined);
});

test('IdTable: an id that clashed keeps its one entry when it is set again after its slot came free', () => {
  const t = new IdTable<string>();
  t.set(1, 'old');
  t.set(9, 'clashed'); // 9 lands on 1's slot (8 slots) while 1 is in flight
  t.delete(1);
  t.set(9, 'again');
  assert.equal(t.get(9), 'again');
  assert.equal(t.size, 1);
  assert.equal(t.delete(9), true);
  assert.equal(t.get(9), undefined);
  assert.equal(t.size, 0);
  assert.deepEqual(t.entries(), []);
});
