//go:build !linux

package main

func freeSpace(dir string) (uint64, bool) { return 0, false }

func clockSynced() (synced, known bool) { return false, false }
