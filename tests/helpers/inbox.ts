import type { AddressInfo } from "node:net";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface Received {
  envelopeFrom: string | null;
  envelopeTo: string[];
  mail: ParsedMail;
}

/** A real SMTP server on loopback that keeps every message it accepts, parsed. */
export interface Inbox {
  port: number;
  messages: Received[];
  /** While set, every recipient is refused with a temporary 451. */
  refuse: boolean;
  /** Recipients refused so far. */
  refused: string[];
  close(): Promise<void>;
}

export async function startInbox(): Promise<Inbox> {
  const inbox: Inbox = { port: 0, messages: [], refuse: false, refused: [], close: async () => {} };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    // A connection still open at close (a send cut short by the app's shutdown) is dropped after 1 s, not 30.
    closeTimeout: 1000,
    onRcptTo(address, _session, callback) {
      if (!inbox.refuse) return callback();
      inbox.refused.push(address.address);
      callback(Object.assign(new Error("Mailbox busy, try again later"), { responseCode: 451 }));
    },
    onData(stream, session, callback) {
      simpleParser(stream).then((mail) => {
        inbox.messages.push({
          envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : null,
          envelopeTo: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          mail,
        });
        callback();
      }, callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  inbox.port = (server.server.address() as AddressInfo).port;
  inbox.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return inbox;
}

/** Polls until `probe` returns (or resolves to) something truthy; fails with `what` after `ms`. */
export async function until<T>(
  what: string,
  probe: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  ms = 20_000,
) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}
