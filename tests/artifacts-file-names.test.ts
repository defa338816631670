import { describe, expect, test } from "bun:test";
import { targetOf } from "../src/features/artifacts/file-names.ts";

/**
 * The platform and architecture `depot publish` infers from a file name when --platform and --arch
 * are not given: the names electron-builder and Tauri give their installers by default, and the
 * usual packagers'. What the name does not say is `any`.
 */

const cases: Array<[string, string, string]> = [
  // electron-builder
  ["My App Setup 1.2.0.exe", "windows", "any"],
  ["My-App-Setup-1.2.0-x64.exe", "windows", "x86_64"],
  ["My-App-Setup-1.2.0-ia32.exe", "windows", "i686"],
  ["My-App-Setup-1.2.0-arm64.exe", "windows", "aarch64"],
  ["My App Setup 1.2.0.exe.blockmap", "windows", "any"],
  ["My-App-1.2.0-win.zip", "windows", "any"],
  ["My-App-1.2.0.msi", "windows", "any"],
  ["My-App-1.2.0.dmg", "darwin", "any"],
  ["My-App-1.2.0-arm64.dmg", "darwin", "aarch64"],
  ["My-App-1.2.0-universal.dmg", "darwin", "universal"],
  ["My-App-1.2.0-mac.zip", "darwin", "any"],
  ["My-App-1.2.0-arm64-mac.zip", "darwin", "aarch64"],
  ["My-App-1.2.0-arm64-mac.zip.blockmap", "darwin", "aarch64"],
  ["My-App-1.2.0.AppImage", "linux", "any"],
  ["My-App-1.2.0-arm64.AppImage", "linux", "aarch64"],
  ["My-App-1.2.0-armv7l.AppImage", "linux", "armv7"],
  ["my-app_1.2.0_amd64.deb", "linux", "x86_64"],
  ["my-app_1.2.0_arm64.deb", "linux", "aarch64"],
  ["my-app_1.2.0_armhf.deb", "linux", "armv7"],
  ["my-app-1.2.0.x86_64.rpm", "linux", "x86_64"],
  ["my-app-1.2.0.aarch64.rpm", "linux", "aarch64"],
  ["my-app_1.2.0_amd64.snap", "linux", "x86_64"],
  ["my-app-1.2.0.pacman", "linux", "any"],
  // Tauri v2
  ["My App_1.2.0_x64-setup.exe", "windows", "x86_64"],
  ["My App_1.2.0_x64-setup.exe.sig", "windows", "x86_64"],
  ["My App_1.2.0_x64_en-US.msi", "windows", "x86_64"],
  ["My App_1.2.0_x86_en-US.msi", "windows", "i686"],
  ["My App_1.2.0_arm64-setup.exe", "windows", "aarch64"],
  ["My App_1.2.0_aarch64.dmg", "darwin", "aarch64"],
  ["My App_1.2.0_x64.dmg", "darwin", "x86_64"],
  ["My App_aarch64.app.tar.gz", "darwin", "aarch64"],
  ["My App_x64.app.tar.gz.sig", "darwin", "x86_64"],
  ["My App_universal.app.tar.gz", "darwin", "universal"],
  ["my-app_1.2.0_amd64.AppImage", "linux", "x86_64"],
  ["my-app_1.2.0_amd64.AppImage.sig", "linux", "x86_64"],
  ["my-app_1.2.0_aarch64.AppImage", "linux", "aarch64"],
  ["my-app-1.2.0-1.x86_64.rpm", "linux", "x86_64"],
  ["my-app-1.2.0-1.i686.rpm", "linux", "i686"],
  // Names that only say part of it, or nothing
  ["tool-linux-x86_64.tar.gz", "linux", "x86_64"],
  ["tool-darwin-arm64.tar.gz", "darwin", "aarch64"],
  ["tool-macos-universal.zip", "darwin", "universal"],
  ["tool-windows-amd64.zip", "windows", "x86_64"],
  ["tool_win32.zip", "windows", "any"],
  ["tool_win64.zip", "windows", "x86_64"],
  ["tool-osx.tar.gz", "darwin", "any"],
  ["plugin-1.0.jar", "any", "any"],
  ["release.tar.gz", "any", "any"],
  ["x64.jar", "any", "x86_64"],
  // Words inside other words are not words: "machine" is not mac, "darwinism" not darwin, "winner" not win.
  ["machine-learning-1.0.zip", "any", "any"],
  ["darwinism.tar.gz", "any", "any"],
  ["winner-1.0.zip", "any", "any"],
  ["linuxbrew-tool.zip", "any", "any"],
  ["sax64-1.0.zip", "any", "any"],
];

describe("targetOf", () => {
  for (const [name, platform, arch] of cases) {
    test(`${name} → ${platform}/${arch}`, () => {
      expect(targetOf(name)).toEqual({ platform, arch } as never);
    });
  }
});
