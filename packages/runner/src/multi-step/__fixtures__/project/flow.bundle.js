var __create = Object.create;
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __getProtoOf = Object.getPrototypeOf;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __require = /* @__PURE__ */ ((x) => typeof require !== "undefined" ? require : typeof Proxy !== "undefined" ? new Proxy(x, {
  get: (a, b) => (typeof require !== "undefined" ? require : a)[b]
}) : x)(function(x) {
  if (typeof require !== "undefined") return require.apply(this, arguments);
  throw Error('Dynamic require of "' + x + '" is not supported');
});
var __commonJS = (cb, mod) => function __require2() {
  try {
    return mod || (0, cb[__getOwnPropNames(cb)[0]])((mod = { exports: {} }).exports, mod), mod.exports;
  } catch (e) {
    throw mod = 0, e;
  }
};
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toESM = (mod, isNodeMode, target) => (target = mod != null ? __create(__getProtoOf(mod)) : {}, __copyProps(
  // If the importer is in node compatibility mode or this is not an ESM
  // file that has been converted to a CommonJS file using a Babel-
  // compatible transform (i.e. "__esModule" has not been set), then set
  // "default" to the CommonJS "module.exports" for node compatibility.
  isNodeMode || !mod || !mod.__esModule ? __defProp(target, "default", { value: mod, enumerable: true }) : target,
  mod
));

// vigil-runtime-require:@playwright/test
var require_test = __commonJS({
  "vigil-runtime-require:@playwright/test"(exports, module) {
    module.exports = __require("@playwright/test");
  }
});

// checks/flow.spec.ts
var import_test = __toESM(require_test(), 1);
(0, import_test.test)("health flow", async ({ request }) => {
  await import_test.test.step("read health", async () => {
    const response = await request.get(`${process.env.BASE_URL}/health`);
    console.log("health answered", response.status());
    const body = await response.json();
    (0, import_test.expect)(body.ok).toBe(process.env.EXPECT_OK === "true");
  });
  console.log("visible variables", Object.keys(process.env).filter((key) => key.startsWith("VIGIL_") || key === "BASE_URL").sort().join(","));
});
//# sourceMappingURL=data:application/json;base64,ewogICJ2ZXJzaW9uIjogMywKICAic291cmNlcyI6IFsidmlnaWwtcnVudGltZS1yZXF1aXJlOkBwbGF5d3JpZ2h0L3Rlc3QiLCAiY2hlY2tzL2Zsb3cuc3BlYy50cyJdLAogICJtYXBwaW5ncyI6ICI7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7QUFBQTtBQUFBO0FBQUEsV0FBTyxVQUFVLFVBQVEsa0JBQWtCO0FBQUE7QUFBQTs7O0FDQTNDLGtCQUE2QjtBQUFBLElBRTdCLGtCQUFLLGVBQWUsT0FBTyxFQUFFLFFBQVEsTUFBTTtBQUN6QyxRQUFNLGlCQUFLLEtBQUssZUFBZSxZQUFZO0FBQ3pDLFVBQU0sV0FBVyxNQUFNLFFBQVEsSUFBSSxHQUFHLFFBQVEsSUFBSSxRQUFRLFNBQVM7QUFDbkUsWUFBUSxJQUFJLG1CQUFtQixTQUFTLE9BQU8sQ0FBQztBQUNoRCxVQUFNLE9BQVEsTUFBTSxTQUFTLEtBQUs7QUFDbEMsNEJBQU8sS0FBSyxFQUFFLEVBQUUsS0FBSyxRQUFRLElBQUksY0FBYyxNQUFNO0FBQUEsRUFDdkQsQ0FBQztBQUNELFVBQVEsSUFBSSxxQkFBcUIsT0FBTyxLQUFLLFFBQVEsR0FBRyxFQUFFLE9BQU8sQ0FBQyxRQUFRLElBQUksV0FBVyxRQUFRLEtBQUssUUFBUSxVQUFVLEVBQUUsS0FBSyxFQUFFLEtBQUssR0FBRyxDQUFDO0FBQzVJLENBQUM7IiwKICAibmFtZXMiOiBbXQp9Cg==
