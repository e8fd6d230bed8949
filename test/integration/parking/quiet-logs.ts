// Imported first by tests that run the whole service in-process: the service logs every parked batch,
// which would bury the test output; errors still show.
process.env.LOG_LEVEL ??= 'error';

export {};
