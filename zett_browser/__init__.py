"""zett-browser: a terminal browser for zett-agent conversation history."""

__version__ = "0.1.0"
