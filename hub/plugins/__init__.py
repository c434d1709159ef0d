"""Plugins: .meta files, discovery and hot reload, signatures, packages, downloads."""
