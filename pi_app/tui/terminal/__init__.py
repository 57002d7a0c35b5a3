"""What the terminal can do and the raw writes we own: the probe, inline images, OSC 8 links, the clipboard."""
