package io.switchboard.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.switchboard.Switchboard;
import io.switchboard.routing.Route;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The demo in a real browser (Debian's headless Chromium driven by Selenium through
 * /usr/bin/chromedriver): the page loads, shows both brokers' figures, and a weight change made in
 * the page moves the next messages, as the routing-decision counters show, and a second replica
 * of the service (started beside it) follows the change, as the page's replicas table shows. Saves
 * target/demo-page.png. Fails, never skips, when Chromium is missing.
 */
@org.junit.jupiter.api.extension.ExtendWith(DemoBrokersExtension.class)
@SpringBootTest(classes = DemoApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"demo.load.rate=100"})
@org.springframework.test.annotation.DirtiesContext(classMode = org.springframework.test.annotation.DirtiesContext.ClassMode.AFTER_CLASS)
@DisplayName("The demo's live comparison page in headless Chromium")
class DemoPageBrowserTest {

    @LocalServerPort
    int port;

    @Autowired
    Switchboard switchboard;

    @Autowired
    MeterRegistry registry;

    @Autowired
    ConfigurableApplicationContext context;

    @Test
    @DisplayName("shows both brokers and both replicas; a weight change in the page moves the next messages on every replica")
    void pageShowsBothBrokersAndMovesTraffic() throws Exception {
        WebDriver driver = chromium();
        ConfigurableApplicationContext replica2 = DemoApplication.startReplica(2, Map.of(), false, "--demo.load.rate=50");
        try {
            Switchboard switchboard2 = replica2.getBean(Switchboard.class);
            assertThat(switchboard2.routing().fleet().replica()).isEqualTo("replica-2");
            driver.get("http://localhost:" + port + "/");
            await().atMost(Duration.ofSeconds(30)).until(() -> driver.findElements(By.cssSelector("#replicas tbody tr")).size() == 2);
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1)).until(() -> publishedShown(driver, "a") > 0
                    && publishedShown(driver, "b") > 0);
            assertThat(driver.findElement(By.id("route")).getText()).contains("a=90").contains("b=10");
            // the settings behind the figures, as each adapter reports them (issue 36): kafka-clients' default linger
            await().atMost(Duration.ofSeconds(30)).until(() -> driver.findElement(By.id("settings")).getText()
                    .contains("a (kafka): linger.ms=5"));
            assertThat(driver.findElement(By.id("settings")).getText()).contains("b (" + switchboard.instance("b").brokerId() + "): ");
            // consumer lag per group, from each broker's own figure
            await().atMost(Duration.ofSeconds(30)).until(() -> driver.findElement(By.id("figures")).getText()
                    .matches("(?s).*consumer lag \\(records\\).*billing \\d+.*"));
            // what each instance's client costs per message: CPU and bytes on the wire, measured
            await().atMost(Duration.ofSeconds(30)).until(() -> driver.findElement(By.id("figures")).getText()
                    .matches("(?s).*client CPU per message \\(us\\) \\d+\\.\\d\\d \\d+\\.\\d\\d.*"
                            + "wire bytes per message \\d+ \\d+.*"));

            WebElement a = driver.findElement(By.id("weight-a"));
            WebElement b = driver.findElement(By.id("weight-b"));
            a.clear();
            a.sendKeys("0");
            b.clear();
            b.sendKeys("100");
            driver.findElement(By.id("apply-weights")).click();
            await().atMost(Duration.ofSeconds(30)).until(() -> driver.findElement(By.id("weights-result")).getText().startsWith("route now"));
            long applied = System.nanoTime();
            assertThat(switchboard.routing().route("orders")).isEqualTo(Route.split(Map.of("a", 0, "b", 100)));
            await().atMost(Duration.ofSeconds(30)).until(() -> switchboard2.routing().route("orders")
                    .equals(Route.split(Map.of("a", 0, "b", 100))));
            System.out.printf("replica-2 followed the page's change (made on replica-1) after %d ms%n",
                    (System.nanoTime() - applied) / 1_000_000);
            MeterRegistry registry2 = replica2.getBean(MeterRegistry.class);
            double a2Before = decisions(registry2, "a");
            long version = switchboard.routing().fleet().routeVersion();
            await().atMost(Duration.ofSeconds(30)).until(() -> replicasShown(driver).equals(Map.of("replica-1", version + " yes",
                    "replica-2", version + " yes")));

            double aBefore = decisions("a");
            double bBefore = decisions("b");
            await().atMost(Duration.ofSeconds(30)).until(() -> decisions("b") - bBefore > 50);
            double aAfter = decisions("a");
            double bAfter = decisions("b");
            System.out.printf("decisions after the page's change, until b had 50 more: a %+.0f, b %+.0f%n", aAfter - aBefore,
                    bAfter - bBefore);
            assertThat(aAfter).as("no new orders on a after weights a=0").isEqualTo(aBefore);
            assertThat(bAfter - bBefore).as("the next orders go to b").isGreaterThan(50);
            assertThat(decisions(registry2, "a")).as("no new orders on a from replica-2 once it followed").isEqualTo(a2Before);

            await().atMost(Duration.ofSeconds(10)).until(() -> driver.findElement(By.id("route")).getText().contains("b=100"));
            Path shot = Path.of("target", "demo-page.png");
            Files.createDirectories(shot.getParent());
            File file = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
            Files.copy(file.toPath(), shot, StandardCopyOption.REPLACE_EXISTING);
            System.out.println("screenshot: " + shot.toAbsolutePath());
        } finally {
            driver.quit();
            replica2.close();
        }
    }

    @Test
    @DisplayName("the timed comparison prints the table and verdict and succeeds")
    void timedComparison() throws Exception {
        switchboard.routing().update("orders", Route.split(Map.of("a", 50, "b", 50)));
        assertThat(DemoApplication.timedComparison(context, Duration.ofSeconds(6))).isZero();
    }

    @Test
    @DisplayName("/actuator/prometheus has every series the Grafana dashboard queries, tagged by broker and instance")
    void grafanaDashboardMatchesPrometheus() throws Exception {
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        await().atMost(Duration.ofSeconds(30)).until(() -> decisions("b") > 0);
        switchboard.routing().update("orders", switchboard.routing().route("orders")); // a route change, counted
        String scrape = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://localhost:" + port
                + "/actuator/prometheus")).build(), java.net.http.HttpResponse.BodyHandlers.ofString()).body();
        String dashboard = Files.readString(Path.of("grafana", "switchboard-dashboard.json"));
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(switchboard_[a-z_]+)").matcher(dashboard);
        java.util.Set<String> series = new java.util.TreeSet<>();
        while (m.find()) {
            series.add(m.group(1));
        }
        assertThat(series).hasSizeGreaterThan(5);
        for (String name : series) {
            assertThat(scrape).as(name + " in /actuator/prometheus").contains(name + "{");
        }
        assertThat(scrape).contains("switchboard_publish_seconds_count{").containsPattern("broker=\"kafka\".*instance=\"a\"|instance=\"a\".*broker=\"kafka\"");
    }

    private double decisions(String instance) {
        return decisions(registry, instance);
    }

    private static double decisions(MeterRegistry registry, String instance) {
        return registry.find("switchboard.routing.decisions").tags("destination", "orders", "instance", instance).counters()
                .stream().mapToDouble(c -> c.count()).sum();
    }

    /** The page's replicas table: replica id to "route-version in-step", read in one script (the page redraws it each second). */
    @SuppressWarnings("unchecked")
    private static Map<String, String> replicasShown(WebDriver driver) {
        List<String> rows = (List<String>) ((org.openqa.selenium.JavascriptExecutor) driver).executeScript(
                "return [...document.querySelectorAll('#replicas tbody tr')].map(r => r.dataset.replica + '|'"
                        + " + r.querySelector('.version').textContent + ' ' + r.querySelector('.in-step').textContent)");
        Map<String, String> shown = new java.util.TreeMap<>();
        rows.forEach(row -> shown.put(row.substring(0, row.indexOf('|')), row.substring(row.indexOf('|') + 1)));
        return shown;
    }

    /** The published count the figures table shows for {@code instance}, read in one script (the page re-renders the table). */
    private static long publishedShown(WebDriver driver, String instance) {
        Object text = ((org.openqa.selenium.JavascriptExecutor) driver).executeScript(
                "const c = document.querySelector('#figures tbody tr:first-child td.fig[data-instance=\"' + arguments[0] + '\"]');"
                        + " return c ? c.textContent : '';", instance);
        try {
            return Long.parseLong(String.valueOf(text).trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static WebDriver chromium() {
        Path chromium = Path.of("/usr/bin/chromium");
        Path chromedriver = Path.of("/usr/bin/chromedriver");
        assertThat(Files.isExecutable(chromium) && Files.isExecutable(chromedriver))
                .as("Debian's Chromium and ChromeDriver are needed: apt-get install -y chromium chromium-driver (.ci/run does it)")
                .isTrue();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(chromium.toFile());
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-quic",
                "--no-first-run", "--disable-component-update", "--disable-sync", "--window-size=1280,1150",
                "--user-data-dir=" + tempDir());
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(chromedriver.toFile())
                .usingAnyFreePort().build();
        return new ChromeDriver(service, options);
    }

    private static String tempDir() {
        try {
            // in the module's build directory: nothing is left in /tmp
            return Files.createTempDirectory(Files.createDirectories(Path.of("target", "chromium")), "profile-").toString();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
