"""Operating a hub: settings, admin actions, telemetry and metrics, logs, the data lock."""
