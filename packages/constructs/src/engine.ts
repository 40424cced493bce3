/**
 * The JavaScript runtime a Playwright check suite asks for (Checkly's `Engine`): `Engine.node('22')`
 * or `Engine.bun('1.3')`. Vigil's runner runs every suite with its own Node.js, so the engine is
 * accepted for Checkly projects and not sent; a non-Node engine is a warning.
 */
export class Engine {
  private constructor(
    readonly name: string,
    readonly version: string,
  ) {}

  static node(version: string): Engine {
    return new Engine('node', version);
  }

  static bun(version: string): Engine {
    return new Engine('bun', version);
  }
}
