/** This package's version: package.json's (a test holds them together), sent in the User-Agent. */
export const VERSION = "0.1.0";
