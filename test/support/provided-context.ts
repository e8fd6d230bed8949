// Types of the values the integration global setup hands to tests through vitest's provide/inject.
declare module 'vitest' {
  export interface ProvidedContext {
    /** "127.0.0.1:port" of the broker the integration suite started. */
    kafkaBrokers: string;
    /** "http://127.0.0.1:port" of the AWS emulator (moto server) the integration suite started. */
    motoEndpoint: string;
  }
}

export {};
