"""Official evaluation protocols of other communities, each in a folder of its own."""
