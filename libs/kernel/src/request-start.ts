const START = Symbol('larder.requestStart');

/** Notes on a request when the server began on it (`performance.now()`): the first middleware calls this. */
export function stampRequestStart(req: object): void {
  (req as { [START]?: number })[START] = performance.now();
}

/** When the server began on this request (`performance.now()`), or undefined where nothing stamped it (a test module without the app's middleware). */
export function requestStart(req: object): number | undefined {
  return (req as { [START]?: number })[START];
}
