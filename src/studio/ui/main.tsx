// The studio page's entry: the store follows the studio's event stream, the app renders it.
import { render } from 'preact';
import { followEvents } from './api.js';
import { App } from './app.js';
import { apply, setConnection } from './store.js';

followEvents(apply, setConnection);
const root = document.getElementById('app');
if (root) render(<App />, root);
