"""Runs a client script against `et-llm serve`, then stops the server.

    serve_driver.py [--signal INT|TERM] SCRIPT -- et-llm serve PROGRAM ...

Starts the server (add --port 0: it picks a free port and prints it), waits
for its "on http://..." line, runs `bash SCRIPT` with ETCH_SERVE_URL set to
the server's /v1 URL, then sends the signal and waits for a clean exit.
Prints the script's output, then the server's log; fails when the script
or the server does.
"""
import os
import re
import signal
import subprocess
import sys
import threading


def main():
    args = sys.argv[1:]
    stop = signal.SIGTERM
    if args[0] == "--signal":
        stop = getattr(signal, "SIG" + args[1])
        args = args[2:]
    script, server_command = args[0], args[args.index("--") + 1:]
    server = subprocess.Popen(server_command, stderr=subprocess.PIPE, text=True)
    log, ready = [], threading.Event()
    url = []

    def read_log():
        for line in server.stderr:
            log.append(line)
            found = re.search(r" on (http://\S+)", line)
            if found and not ready.is_set():
                url.append(found.group(1))
                ready.set()
        ready.set()  # the server ended before listening

    reader = threading.Thread(target=read_log)
    reader.start()
    if not ready.wait(120) or not url:
        server.kill()
        reader.join()
        sys.exit("the server did not start:\n" + "".join(log))
    client = subprocess.run(["bash", script],
                            env=dict(os.environ, ETCH_SERVE_URL=url[0]),
                            capture_output=True, text=True)
    sys.stdout.write(client.stdout)
    server.send_signal(stop)
    try:
        status = server.wait(60)
    except subprocess.TimeoutExpired:
        server.kill()
        status = "killed: no exit 60 s after the signal"
    reader.join()
    print("--- server log")
    sys.stdout.write("".join(log))
    print(f"server exit status: {status}")
    if client.returncode != 0:
        sys.exit(f"the client script failed ({client.returncode}):\n{client.stderr}")
    if status != 0:
        sys.exit(1)


if __name__ == "__main__":
    main()
