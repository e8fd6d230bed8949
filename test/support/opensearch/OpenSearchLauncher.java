// A single-node OpenSearch for the elasticsearch destination's tests, run from the jars Maven fetched
// (pom.xml here): the server with its HTTP transport and common analysis plugins, loaded from the class
// path through Node's protected constructor, as OpenSearch's own test nodes do. opensearch-node.ts
// compiles and starts it; it prints "HTTP <port>" once the node serves, and stops on SIGTERM.
//
// Arguments: <home folder> <http port>. The home folder holds the data and logs; the caller owns it.
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.opensearch.analysis.common.CommonAnalysisPlugin;
import org.opensearch.common.logging.LogConfigurator;
import org.opensearch.common.settings.Settings;
import org.opensearch.env.Environment;
import org.opensearch.http.HttpServerTransport;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.plugins.Plugin;
import org.opensearch.transport.Netty4Plugin;

public final class OpenSearchLauncher extends Node {
  private OpenSearchLauncher(Environment environment, List<Class<? extends Plugin>> plugins) {
    super(environment, plugins, true);
  }

  public static void main(String[] args) throws Exception {
    Path home = Path.of(args[0]).toAbsolutePath();
    Settings settings = Settings.builder()
        .put("path.home", home.toString())
        .put("path.data", home.resolve("data").toString())
        .put("path.logs", home.resolve("logs").toString())
        .put("cluster.name", "edge-events-test")
        .put("node.name", "edge-events-test")
        .put("discovery.type", "single-node")
        .put("network.host", "127.0.0.1")
        .put("http.port", args[1])
        .put("transport.port", "0")
        // A shared disk's fill level must not make the test index read-only.
        .put("cluster.routing.allocation.disk.threshold_enabled", false)
        .put("action.auto_create_index", true)
        .build();
    LogConfigurator.configureWithoutConfig(settings);
    Environment environment = InternalSettingsPreparer.prepareEnvironment(settings, Map.of(), home.resolve("config"), () -> "edge-events-test");
    Node node = new OpenSearchLauncher(environment, List.of(Netty4Plugin.class, CommonAnalysisPlugin.class));
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        node.close();
      } catch (Exception e) {
        // Stopping anyway.
      }
    }));
    node.start();
    int port = node.injector().getInstance(HttpServerTransport.class).boundAddress().publishAddress().getPort();
    System.out.println("HTTP " + port);
    System.out.flush();
    // The node's threads are daemons: as OpenSearch's own bootstrap does, a thread waits until the stop.
    new CountDownLatch(1).await();
  }
}
