import type { AddressInfo } from "node:net";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

/** A real SMTP server on loopback that keeps every message it accepts, parsed. */
export interface Inbox {
  port: number;
  messages: { envelopeTo: string[]; mail: ParsedMail }[];
  close(): Promise<void>;
}

export async function startInbox(): Promise<Inbox> {
  const inbox: Inbox = { port: 0, messages: [], close: async () => {} };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    closeTimeout: 1000,
    onData(stream, session, callback) {
      simpleParser(stream).then((mail) => {
        inbox.messages.push({ envelopeTo: session.envelope.rcptTo.map((rcpt) => rcpt.address), mail });
        callback();
      }, callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  inbox.port = (server.server.address() as AddressInfo).port;
  inbox.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return inbox;
}

/** Polls until `probe` returns something truthy; fails with `what` after `ms`. */
export async function until<T>(what: string, probe: () => T | null | undefined | false, ms = 20_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}
