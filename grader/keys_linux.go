package main

import "syscall"

// The requests that read and set a terminal's settings.
const getTermios, setTermios = syscall.TCGETS, syscall.TCSETS
