import {
  createTransport,
  type SMTPSentMessageInfo,
  type SMTPTransportOptions,
  type Transporter,
} from "nodemailer";

/**
 * Bounds on every SMTP conversation, so a server that accepts the connection and then says nothing
 * cannot hold a worker slot forever: the send fails, the job is retried later. nodemailer's own
 * defaults are 2 and 10 minutes. Query parameters of SMTP_URL win (`?socketTimeout=60000`).
 */
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

type SmtpTransport = Transporter<SMTPSentMessageInfo, SMTPTransportOptions>;
/** One transport per SMTP_URL, made on first use and reused by every e-mail job of the process. */
const transports = new Map<string, SmtpTransport>();

function transportFor(smtpUrl: string): SmtpTransport {
  let transport = transports.get(smtpUrl);
  if (!transport) {
    // Pooled: a fan-out sends thousands of messages, each over a reused connection, not a new one.
    transport = createTransport({
      url: smtpUrl,
      pool: true,
      maxConnections: 5,
      ...TIMEOUTS,
    } as SMTPTransportOptions);
    transports.set(smtpUrl, transport);
  }
  return transport;
}

export interface OutgoingMail {
  from: string;
  to: { name: string; address: string };
  subject: string;
  text: string;
  html: string;
}

/**
 * Hands one message to the SMTP server. Throws on a connection error, a timeout or a refusal (a
 * refused recipient included), so the caller's job is retried.
 */
export async function sendMail(smtpUrl: string, mail: OutgoingMail): Promise<{ messageId: string }> {
  const info = await transportFor(smtpUrl).sendMail(mail);
  if (info.rejected.length > 0) {
    throw new Error(`SMTP server refused ${info.rejected.join(", ")}: ${info.response}`);
  }
  return { messageId: info.messageId };
}
