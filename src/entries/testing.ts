// mcpkit/testing: an in-process client and server pair with a wire recorder, for tests.

export { createTestPair, WireRecorder, type TestPair, type TestPairOptions, type WireEntry } from '../testing/index.js';
