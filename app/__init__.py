"""The application layer: the event store, services, projections and read models."""
