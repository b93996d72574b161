package io.github.toolcallmodel.fixes;

import java.util.Map;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * The report of the running application ({@link ToolCallFixesReport}) as the
 * Actuator endpoint {@code toolcallfixes}, where Actuator is present (expose it
 * with {@code management.endpoints.web.exposure.include=toolcallfixes}).
 */
@Endpoint(id = "toolcallfixes")
public class ToolCallFixesEndpoint {

	private final ToolCallFixesReport report;

	public ToolCallFixesEndpoint(ToolCallFixesReport report) {
		this.report = report;
	}

	/** The facts read at startup, the fixes installed and why, and the check command line. */
	@ReadOperation
	public Map<String, Object> report() {
		return this.report.report();
	}

}
