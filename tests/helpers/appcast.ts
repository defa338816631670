import { spawnSync } from "node:child_process";

/**
 * An appcast read by an XML parser that is not depot's (Python's ElementTree, strict about
 * well-formedness and namespaces), into what Sparkle takes from each item.
 */

export interface ParsedItem {
  title: string | null;
  pubDate: string | null;
  version: string | null;
  shortVersionString: string | null;
  channel: string | null;
  critical: boolean;
  description: string | null;
  enclosure: { url: string; length: string; type: string; edSignature: string | null };
}

const SCRIPT = `
import json, sys, xml.etree.ElementTree as ET
S = "{http://www.andymatuschak.org/xml-namespaces/sparkle}"
root = ET.fromstring(sys.stdin.buffer.read())
assert root.tag == "rss" and root.get("version") == "2.0", root.tag
items = []
for item in root.find("channel").findall("item"):
    enclosure = item.find("enclosure")
    items.append({
        "title": item.findtext("title"),
        "pubDate": item.findtext("pubDate"),
        "version": item.findtext(S + "version"),
        "shortVersionString": item.findtext(S + "shortVersionString"),
        "channel": item.findtext(S + "channel"),
        "critical": item.find(S + "criticalUpdate") is not None,
        "description": item.findtext("description"),
        "enclosure": {
            "url": enclosure.get("url"),
            "length": enclosure.get("length"),
            "type": enclosure.get("type"),
            "edSignature": enclosure.get(S + "edSignature"),
        },
    })
print(json.dumps(items))
`;

export function parseAppcast(xml: string): ParsedItem[] {
  const result = spawnSync("python3", ["-c", SCRIPT], { input: xml, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`the appcast does not parse: ${result.stderr}`);
  return JSON.parse(result.stdout);
}
