export * from './messages.js';
export * from './errors.js';
export * from './codec.js';
