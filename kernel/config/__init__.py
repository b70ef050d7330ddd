"""The home folder, the settings file and its schema, and the secret store."""
