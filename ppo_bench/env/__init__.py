"""The env side: vector-env adapters (ale-py, envpool, gymnasium), the torch adapter, memory per emulator."""
