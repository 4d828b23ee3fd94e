"""What several connectors share and no other layer needs: reading Kubernetes audit
events, templates of log lines, the network-check guard, bounded regular expressions,
and the thread pool the blocking SDKs run on. Connectors import it; it imports none of
them (the import-linter contract "Connector kit")."""
