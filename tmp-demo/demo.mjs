import { spawn } from 'node:child_process';
const { startScriptedOpenAI, textTurn, toolCallsTurn } = await import('/work/wt-chat/test/support/index.ts');
const llm = await startScriptedOpenAI([
  textTurn('Hi! I can check the weather.'),
  toolCallsTurn({ name: 'get_weather', arguments: { city: 'Hangzhou' } }, { text: 'Let me check.' }),
  textTurn('It is 24°C with light rain in **Hangzhou**.'),
  toolCallsTurn({ name: 'long_report', arguments: {} }),
  textTurn('Done'),
]);
const TSX = import.meta.resolve('tsx');
const W = `"${process.execPath}" --import ${TSX} "/work/wt-chat/test/fixtures/cli/weather-server.ts"`;
const child = spawn(process.execPath, ['/work/wt-chat/dist/cli/main.js', 'chat', '--base-url', llm.baseUrl, '-m', 'scripted', '-s', W, ...process.argv.slice(2)], { stdio: ['pipe', 'inherit', 'inherit'], env: { ...process.env, NO_COLOR: '1' } });
child.stdin.end('hello\nweather?\nreport\n');
child.on('close', async (code) => { console.log('exit', code); await llm.close(); });
