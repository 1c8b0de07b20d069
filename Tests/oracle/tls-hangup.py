# A TLS client that sends three SimplePush requests and hangs up before the answers: the
# responder (run with --delay) then writes to a closed connection. Used by TLSTests.
import socket, ssl, struct, json, sys, base64
port=int(sys.argv[1])
ctx=ssl.create_default_context(); ctx.check_hostname=False; ctx.verify_mode=ssl.CERT_NONE
s=ctx.wrap_socket(socket.create_connection(("127.0.0.1",port)), server_hostname="localhost")
def req(i):
    body=json.dumps({"command":"request","requestIdentifier":i,"payload":{"codingKey":4,"data":base64.b64encode(b'{"count":1}').decode()}}).encode()
    return struct.pack('<I',len(body))+body
s.sendall(req(1)+req(2)+req(3))
s.close()
