// Placeholder until the local broker tooling lands: integration tests need a real broker.
export default function setup(): void {
  throw new Error('The integration suite needs the local Kafka broker tooling (local-kafka/), which is not built yet.');
}
