/**
 * The scrypt hashes of the demo world's public secrets (the demo PIN and the operator accounts'
 * demo passwords, which the start banner prints), made once with the parameters of
 * core/secrets.ts, each with its own random salt, and kept here. scrypt is slow by design (about
 * 50 ms a hash): making these three on every first start took 0.2 s of about 1.8 and protected
 * nothing, since the secrets are public. A PIN or password anyone sets is hashed with a salt of
 * its own, as always. test/unit/directory/demo-secret-hashes.test.ts checks each against its secret.
 */
export const DEMO_SECRET_HASHES: Readonly<Record<string, string>> = {
  '1234': 'scrypt$16384$8$1$bWM5X7o4x3w6341ai1pY4g==$55D8WniI94VTqW+SwAIwzAi4NSHii51Wjk2vGfJ7UzU=',
  admin: 'scrypt$16384$8$1$WmfDVEHgUNnfHfBmi0wNXw==$tb9cfTNcmpg15N4OhBzFn2xFwKhuMeu9LcIOQaBdA9Y=',
  operator: 'scrypt$16384$8$1$Wp50+vFpdYHdaZoy0mYFxg==$0xle3WSKsLdkY2iF6EXusqxXmaO9a78DPgmXKXBUVGo=',
};
