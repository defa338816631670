// s3rver's account registry, which its own types leave out: tests add a second key pair to it.
declare module "s3rver/lib/models/account.js" {
  const AWSAccount: { DUMMY_ACCOUNT: { createKeyPair(accessKeyId: string, secretAccessKey: string): void } };
  export default AWSAccount;
}
