// Writes src/dashboard/favicon.ico from src/dashboard/favicon.svg (`bun scripts/favicon.ts`): the SVG
// is what the dashboard links; the .ico is for whatever still asks for /favicon.ico (bookmarks, feed
// readers, older browsers). Chromium draws the SVG at each size (the browser tests' own, no download)
// and the PNGs go into one ICO file, which every ICO reader since Windows Vista takes. Run it again
// after changing the SVG and commit both files.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const SIZES = [16, 32, 48];
const svgPath = fileURLToPath(new URL("../src/dashboard/favicon.svg", import.meta.url));
const icoPath = fileURLToPath(new URL("../src/dashboard/favicon.ico", import.meta.url));

const svg = readFileSync(svgPath, "utf8");
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
});
const pngs: Buffer[] = [];
try {
  for (const size of SIZES) {
    const page = await browser.newPage({ viewport: { width: size, height: size } });
    const src = `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`;
    await page.setContent(
      `<body style="margin:0"><img src="${src}" width="${size}" height="${size}" style="display:block"></body>`,
    );
    await page.waitForFunction("document.images[0]?.complete");
    // Transparent outside the rounded corners.
    pngs.push(await page.screenshot({ omitBackground: true }));
    await page.close();
  }
} finally {
  await browser.close();
}

// ICONDIR (6 bytes), one ICONDIRENTRY (16 bytes) per image, then the images: all little-endian.
const header = Buffer.alloc(6 + 16 * pngs.length);
header.writeUInt16LE(0, 0);
header.writeUInt16LE(1, 2); // 1: an icon (2 would be a cursor)
header.writeUInt16LE(pngs.length, 4);
let offset = header.length;
pngs.forEach((png, i) => {
  const size = SIZES[i] ?? 0;
  const entry = 6 + 16 * i;
  header.writeUInt8(size, entry); // width (0 would mean 256)
  header.writeUInt8(size, entry + 1); // height
  header.writeUInt8(0, entry + 2); // no palette
  header.writeUInt8(0, entry + 3);
  header.writeUInt16LE(1, entry + 4); // colour planes
  header.writeUInt16LE(32, entry + 6); // bits per pixel
  header.writeUInt32LE(png.length, entry + 8);
  header.writeUInt32LE(offset, entry + 12);
  offset += png.length;
});
writeFileSync(icoPath, Buffer.concat([header, ...pngs]));
console.log(`wrote ${icoPath} (${offset} bytes: ${SIZES.join(", ")} px)`);
