"""A seat at a table: its view, previews, plays and leaving; the table's views and live turns."""
