// Helpers for the child processes the test scripts start (conformance servers, runtime hosts).

/** SIGTERM, then SIGKILL after 5 s; resolves once the child has exited. */
export function stopChild(child) {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(kill);
      done();
    });
    child.kill('SIGTERM');
  });
}
