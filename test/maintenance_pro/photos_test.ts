/**
 * What a photo is, read from its bytes: JPEGs and PNGs made by Chromium's encoders (an independent maker of both, at
 * sizes the test chooses) are read with their true dimensions; anything else, however named, is refused.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { checkPhotos, PhotoRejected, photoKind, photoMaxBytes } from "../../src/maintenance_pro/photos.ts";
import { haveChromium, launchChromium, type TestBrowser } from "../support/chromium.ts";
import { ihdr, png } from "./photo_fixtures.ts";

// The callback given to page.evaluate runs in the page; the project compiles without the DOM library.
interface Gradient {
  addColorStop(at: number, color: string): void;
}
interface Canvas2d {
  fillStyle: unknown;
  createLinearGradient(x0: number, y0: number, x1: number, y1: number): Gradient;
  fillRect(x: number, y: number, w: number, h: number): void;
}
declare const document: {
  createElement(name: "canvas"): {
    width: number;
    height: number;
    getContext(kind: "2d"): Canvas2d | null;
    toDataURL(type: string, quality: number): string;
  };
};

const chromium = haveChromium("photos_test (images made by Chromium)");
let browser: TestBrowser | undefined;
beforeAll(async () => {
  if (chromium) browser = await launchChromium();
}, 60_000);
afterAll(() => browser?.close());

/** An image Chromium's canvas encodes: `type` at width × height, drawn with a gradient so it is not trivial. */
async function made(type: "image/jpeg" | "image/png", width: number, height: number, quality = 0.9) {
  const page = await browser!.browser.newPage();
  try {
    const url = await page.evaluate(
      (type, width, height, quality) => {
        const canvas = document.createElement("canvas");
        canvas.width = width;
        canvas.height = height;
        const g = canvas.getContext("2d")!;
        const fill = g.createLinearGradient(0, 0, width, height);
        fill.addColorStop(0, "#804020");
        fill.addColorStop(1, "#20a0f0");
        g.fillStyle = fill;
        g.fillRect(0, 0, width, height);
        return canvas.toDataURL(type, quality);
      },
      type,
      width,
      height,
      quality,
    );
    expect(url.startsWith(`data:${type};base64,`)).toBe(true);
    return new Uint8Array(Buffer.from(url.slice(url.indexOf(",") + 1), "base64"));
  } finally {
    await page.close();
  }
}

/** A JPEG frame header (SOF0) of 32 × 16, one component. */
const frame = [0xff, 0xc0, 0, 11, 8, 0, 16, 0, 32, 1, 1, 0x11, 0];

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(PhotoRejected);
    return { _tag: (error as PhotoRejected).tag, ...(error as PhotoRejected).fields };
  }
  throw new Error("not refused");
};

describe.if(chromium)("images Chromium makes", () => {
  test("JPEGs and PNGs are read with their dimensions, whatever their size and quality", async () => {
    for (const [width, height] of [
      [1, 1],
      [40, 30],
      [640, 480],
      [3, 1200],
    ] as const) {
      expect(photoKind(await made("image/jpeg", width, height))).toEqual({ contentType: "image/jpeg", width, height });
      expect(photoKind(await made("image/jpeg", width, height, 0.3))).toEqual({
        contentType: "image/jpeg",
        width,
        height,
      });
      expect(photoKind(await made("image/png", width, height))).toEqual({ contentType: "image/png", width, height });
    }
  });

  test("a photo cut short, or with its start or type changed, is no photo", async () => {
    const jpeg = await made("image/jpeg", 64, 48);
    const pngBytes = await made("image/png", 64, 48);
    expect(photoKind(jpeg.subarray(0, 40))).toBeNull();
    expect(photoKind(pngBytes.subarray(0, 30))).toBeNull();
    expect(photoKind(Uint8Array.from([0, ...jpeg]))).toBeNull();
    const webp = await made("image/webp" as "image/png", 8, 8);
    expect(Buffer.from(webp.subarray(0, 4)).toString("latin1")).toBe("RIFF");
    expect(photoKind(webp)).toBeNull();
  });

  test("checkPhotos keeps each photo's bytes, type, size and SHA-256", async () => {
    const jpeg = await made("image/jpeg", 10, 20);
    const [photo] = checkPhotos([jpeg], 5);
    expect(photo).toMatchObject({ contentType: "image/jpeg", width: 10, height: 20, size: jpeg.length });
    expect(photo!.bytes).toBe(jpeg);
    expect(photo!.sha256.toString("hex")).toBe(new Bun.CryptoHasher("sha256").update(jpeg).digest("hex"));
  });
});

describe("what is refused", () => {
  test("text, GIF, HTML and a PNG header with a bad CRC or no size are not JPEG or PNG", () => {
    for (const bytes of [
      new TextEncoder().encode("just a text file called photo.jpg"),
      new TextEncoder().encode("GIF89a\u0001\u0000\u0001\u0000"),
      new TextEncoder().encode("<html><script>alert(1)</script></html>"),
      png(ihdr(4, 4), true),
      png(ihdr(0, 4)),
      png(ihdr(4, 70_000)),
      Uint8Array.from([0xff, 0xd8, 0xff, 0xd9]),
      // A frame header after the end of the image, or after scan data: no JPEG reads it there.
      Uint8Array.from([0xff, 0xd8, 0xff, 0xd9, 0, 4, 0, 0, ...frame]),
      Uint8Array.from([0xff, 0xd8, 0xff, 0xda, 0, 4, 0, 0, ...frame]),
    ])
      expect(photoKind(bytes)).toBeNull();
    expect(photoKind(png(ihdr(4, 3)))).toEqual({ contentType: "image/png", width: 4, height: 3 });
    expect(photoKind(Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, ...frame]))).toEqual({
      contentType: "image/jpeg",
      width: 32,
      height: 16,
    });
  });

  test("checkPhotos refuses the first photo that fails, by its index: empty, too large, not an image, too many", () => {
    const good = png(ihdr(2, 2));
    expect(refusal(() => checkPhotos([good, new Uint8Array(0)], 5))).toEqual({
      _tag: "PhotoRejected",
      reason: "empty",
      index: 1,
    });
    const big = new Uint8Array(photoMaxBytes + 1);
    big.set(good);
    expect(refusal(() => checkPhotos([big], 5))).toMatchObject({ reason: "too_large", index: 0 });
    const atLimit = new Uint8Array(photoMaxBytes);
    atLimit.set(good);
    expect(checkPhotos([atLimit], 5)[0]!.size).toBe(photoMaxBytes);
    expect(refusal(() => checkPhotos([good, good, new TextEncoder().encode("x")], 5))).toMatchObject({
      reason: "not_jpeg_or_png",
      index: 2,
    });
    expect(refusal(() => checkPhotos([good, good, good, good], 3))).toMatchObject({ reason: "too_many", index: 3 });
    expect(checkPhotos([], 3)).toEqual([]);
  });
});
