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
 * the page moves the next messages, as the routing-decision counters show. Saves
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
    @DisplayName("shows both brokers, and a weight change in the page moves the next messages")
    void pageShowsBothBrokersAndMovesTraffic() throws Exception {
        WebDriver driver = chromium();
        try {
            driver.get("http://localhost:" + port + "/");
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1)).until(() -> publishedShown(driver, "a") > 0
                    && publishedShown(driver, "b") > 0);
            assertThat(driver.findElement(By.id("route")).getText()).contains("a=90").contains("b=10");

            WebElement a = driver.findElement(By.id("weight-a"));
            WebElement b = driver.findElement(By.id("weight-b"));
            a.clear();
            a.sendKeys("0");
            b.clear();
            b.sendKeys("100");
            driver.findElement(By.id("apply-weights")).click();
            await().atMost(Duration.ofSeconds(30)).until(() -> driver.findElement(By.id("weights-result")).getText().startsWith("route now"));
            assertThat(switchboard.routing().route("orders")).isEqualTo(Route.split(Map.of("a", 0, "b", 100)));

            double aBefore = decisions("a");
            double bBefore = decisions("b");
            await().atMost(Duration.ofSeconds(30)).until(() -> decisions("b") - bBefore > 50);
            double aAfter = decisions("a");
            double bAfter = decisions("b");
            System.out.printf("decisions after the page's change, until b had 50 more: a %+.0f, b %+.0f%n", aAfter - aBefore,
                    bAfter - bBefore);
            assertThat(aAfter).as("no new orders on a after weights a=0").isEqualTo(aBefore);
            assertThat(bAfter - bBefore).as("the next orders go to b").isGreaterThan(50);

            await().atMost(Duration.ofSeconds(10)).until(() -> driver.findElement(By.id("route")).getText().contains("b=100"));
            Path shot = Path.of("target", "demo-page.png");
            Files.createDirectories(shot.getParent());
            File file = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
            Files.copy(file.toPath(), shot, StandardCopyOption.REPLACE_EXISTING);
            System.out.println("screenshot: " + shot.toAbsolutePath());
        } finally {
            driver.quit();
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
        return registry.find("switchboard.routing.decisions").tags("destination", "orders", "instance", instance).counters()
                .stream().mapToDouble(c -> c.count()).sum();
    }

    private static long publishedShown(WebDriver driver, String instance) {
        List<WebElement> cells = driver.findElements(By.cssSelector("#figures tbody tr:first-child td.fig[data-instance='" + instance + "']"));
        if (cells.isEmpty()) {
            return 0;
        }
        try {
            return Long.parseLong(cells.get(0).getText().trim());
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
            return Files.createTempDirectory("switchboard-chromium").toString();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
