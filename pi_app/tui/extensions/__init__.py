"""The app's side of extensions: the host, ``ctx.ui``, what they put on screen, their dialogs and overlays."""
