@echo off
rem The `memdir` command of an installed Memdir app: the app's own binary, run as Node
rem (ELECTRON_RUN_AS_NODE=1), runs the command-line tool shipped beside it.
setlocal
set ELECTRON_RUN_AS_NODE=1
"%~dp0..\..\Memdir.exe" "%~dp0..\app.asar.unpacked\out\cli\memdir.js" %*
