// The words tool search indexes: identifiers split, English inflections folded, scripts written
// without spaces cut into character pairs so that a phrase inside a sentence still matches.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stem, tokenize } from '../../../src/pool/search/tokenize.js';

test('identifiers: camelCase, snake_case, kebab-case and digits split; a camelCase word also counts whole', () => {
  assert.deepEqual(tokenize('getFileContents', true), ['getfilecontent', 'get', 'fil', 'content']);
  assert.deepEqual(tokenize('list_merge_requests'), ['list', 'merg', 'request']);
  assert.deepEqual(tokenize('browser-navigate-back'), ['browser', 'navigat', 'back']);
  assert.deepEqual(tokenize('HTTPServer'), ['httpserver', 'http', 'server']);
  assert.deepEqual(tokenize('s3Bucket'), ['s3bucket', 's', '3', 'bucket']);
  // "GitHub" in a sentence finds a tool whose text says "github".
  assert.ok(tokenize('open an issue on GitHub').includes('github'));
});

test('stemming: inflections of one word meet; short words and non-English letters are left alone', () => {
  for (const w of ['create', 'creates', 'created', 'creating', 'creation']) assert.equal(stem(w), 'creat', w);
  for (const w of ['issue', 'issues']) assert.equal(stem(w), 'issu', w);
  assert.equal(stem('searches'), 'search');
  assert.equal(stem('repositories'), stem('repository'));
  assert.equal(stem('running'), 'run');
  assert.equal(stem('listed'), 'list');
  assert.equal(stem('status'), 'status');
  assert.equal(stem('address'), 'address');
  assert.equal(stem('get'), 'get');
  assert.equal(stem('café'), 'café');
});

test('stopwords leave queries, but not names', () => {
  assert.deepEqual(tokenize('I want to get the weather for a city'), ['weather', 'city']);
  assert.deepEqual(tokenize('get_weather', true), ['get', 'weather']);
});

test('Chinese, Japanese and Korean: overlapping character pairs, mixed with Latin words', () => {
  assert.deepEqual(tokenize('创建议题'), ['创建', '建议', '议题']);
  // A two-character word inside a longer sentence is still one of its pairs.
  assert.ok(tokenize('请帮我在仓库里创建一个新的议题').includes('议题'));
  assert.deepEqual(tokenize('在GitHub上创建'), ['在', 'github', 'git', 'hub', '上创', '创建']);
  // Japanese mixes kanji and kana inside a word: one run.
  assert.deepEqual(tokenize('ファイルを読む'), ['ファ', 'ァイ', 'イル', 'ルを', 'を読', '読む']);
  assert.deepEqual(tokenize('파일 읽기'), ['파일', '읽기']);
  // A lone character stands for itself.
  assert.deepEqual(tokenize('读 file'), ['读', 'fil']);
});

test('accents are folded on Latin letters; full-width forms become ASCII', () => {
  assert.deepEqual(tokenize('Créer un événement'), ['creer', 'un', 'evenement']);
  assert.deepEqual(tokenize('ＧｉｔＨｕｂ'), tokenize('GitHub'));
});

test('Thai (no spaces, no CJK): words from Intl.Segmenter where the runtime has it', () => {
  const words = tokenize('ค้นหาไฟล์');
  assert.ok(words.length >= 2, `segmented into ${JSON.stringify(words)}`);
  assert.equal(words.join(''), 'ค้นหาไฟล์');
});
