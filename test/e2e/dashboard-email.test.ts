import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, captureWidths, launch, newDashboardPage, newEmail, signIn, tokenForEmail } from './browser.ts';
import { smtp } from '../integration/mail.ts';
import { eventually } from '../support/eventually.ts';

// The email channel in the dashboard: an email (with an image attached) in the inbox with its mark
// and subject, the channel filter, the reply box saying the reply is emailed, the reply's delivery,
// and the settings page's inbound address; at 1280 and 360 px.

/** A 48 x 32 gradient. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAADAAAAAgCAIAAADbtmxLAAALjklEQVR4nAXBgabCAABA0T4nHhERERERERER0cyaWTNrZmUqszI1s2bWTM2IiIjol+53vHMqlFXKP8oaZZ2yQdmkbFG2KTuUXcoeZZ9yQDmkHFGOKSeUU8oZ5ZxSpFxQKpRLSp1yRWlRrikdyh2lS3mg9CnPlCHlhTKhvFLmlHfKkvJB+aR8Ub4pP5Rfyl+FokrxR1GjqFM0KJoULYo2RYeiS9Gj6FMMKIYUI4oxxYRiSjGjmFOIFAsKhWJJoVOsKCyKNYVDsaNwKQ4UPsWZIqS4UCQUV4qc4k5RUjwonhQvijfFh+JL8atwq3L741bjVufW4Nbk1uLW5tbh1uXW49bnNuA25DbiNuY24TblNuM25yZyW3BTuC256dxW3Cxua24Otx03l9uBm8/tzC3kduGWcLtyy7nduZXcHtye3F7c3tw+3L7cfhXyKvkfeY28Tt4gb5K3yNvkHfIueY+8Tz4gH5KPyMfkE/Ip+Yx8Ti6SL8gV8iW5Tr4it8jX5A75jtwlP5D75GfykPxCnpBfyXPyO3lJ/iB/kr/I3+Qf8i/5r0JWJfsjq5HVyRpkTbIWWZusQ9Yl65H1yQZkQ7IR2ZhsQjYlm5HNyUSyBZlCtiTTyVZkFtmazCHbkblkBzKf7EwWkl3IErIrWU52JyvJHmRPshfZm+xD9iX7VUirpH+kNdI6aYO0SdoibZN2SLukPdI+6YB0SDoiHZNOSKekM9I5qUi6IFVIl6Q66YrUIl2TOqQ7Upf0QOqTnklD0gtpQnolzUnvpCXpg/RJ+iJ9k35Iv6S/CkmV5I+kRlInaZA0SVokbZIOSZekR9InGZAMSUYkY5IJyZRkRjInEUkWJArJkkQnWZFYJGsSh2RH4pIcSHySM0lIciFJSK4kOcmdpCR5kDxJXiRvkg/Jl+RXIa4S/xHXiOvEDeImcYu4Tdwh7hL3iPvEA+Ih8Yh4TDwhnhLPiOfEIvGCWCFeEuvEK2KLeE3sEO+IXeIDsU98Jg6JL8QJ8ZU4J74Tl8QP4ifxi/hN/CH+Ev8qRFWiP6IaUZ2oQdQkahG1iTpEXaIeUZ9oQDQkGhGNiSZEU6IZ0ZxIJFoQKURLIp1oRWQRrYkcoh2RS3Qg8onORCHRhSghuhLlRHeikuhB9CR6Eb2JPkRfol+FsEr4R1gjrBM2CJuELcI2YYewS9gj7BMOCIeEI8Ix4YRwSjgjnBOKhAtChXBJqBOuCC3CNaFDuCN0CQ+EPuGZMCS8ECaEV8Kc8E5YEj4In4Qvwjfhh/BL+KsQVAn+CGoEdYIGQZOgRdAm6BB0CXoEfYIBwZBgRDAmmBBMCWYEcwKRYEGgECwJdIIVgUWwJnAIdgQuwYHAJzgThAQXgoTgSpAT3AlKggfBk+BF8Cb4EHwJfhVOVU5/nGqc6pwanJqcWpzanDqcupx6nPqcBpyGnEacxpwmnKacZpzmnEROC04KpyUnndOKk8VpzcnhtOPkcjpw8jmdOYWcLpwSTldOOac7p5LTg9OT04vTm9OH05fTr4Jfxf/Dr+HX8Rv4TfwWfhu/g9/F7+H38Qf4Q/wR/hh/gj/Fn+HP8UX8Bb6Cv8TX8Vf4Fv4a38Hf4bv4B3wf/4wf4l/wE/wrfo5/xy/xH/hP/Bf+G/+D/8X/VThWOf5xrHGsc2xwbHJscWxz7HDscuxx7HMccBxyHHEcc5xwnHKccZxzFDkuOCoclxx1jiuOFsc1R4fjjqPL8cDR53jmGHK8cEw4XjnmHO8cS44Pjk+OL45vjh+OX46/Cl4V7w+vhlfHa+A18Vp4bbwOXhevh9fHG+AN8UZ4Y7wJ3hRvhjfHE/EWeAreEk/HW+FZeGs8B2+H5+Id8Hy8M16Id8FL8K54Od4dr8R74D3xXnhvvA/eF+9Xwa3i/uHWcOu4Ddwmbgu3jdvB7eL2cPu4A9wh7gh3jDvBneLOcOe4Iu4CV8Fd4uq4K1wLd43r4O5wXdwDro97xg1xL7gJ7hU3x73jlrgP3CfuC/eN+8H94v4q7Kvs/9jX2NfZN9g32bfYt9l32HfZ99j32Q/YD9mP2I/ZT9hP2c/Yz9mL7BfsFfZL9jr7FXuL/Zq9w37H3mV/YO+zP7MP2V/YJ+yv7HP2d/Yl+wf7J/sX+zf7D/sv+1+FbZXtH9sa2zrbBtsm2xbbNtsO2y7bHts+2wHbIdsR2zHbCdsp2xnbOVuR7YKtwnbJVme7YmuxXbN12O7YumwPbH22Z7Yh2wvbhO2Vbc72zrZk+2D7ZPti+2b7Yftl+6vgVHH+cGo4dZwGThOnhdPG6eB0cXo4fZwBzhBnhDPGmeBMcWY4cxwRZ4Gj4CxxdJwVjoWzxnFwdjguzgHHxznjhDgXnATnipPj3HFKnAfOE+eF88b54HxxfhU2VTZ/bGps6mwabJpsWmzabDpsumx6bPpsBmyGbEZsxmwmbKZsZmzmbEQ2CzYKmyUbnc2KjcVmzcZhs2Pjsjmw8dmc2YRsLmwSNlc2OZs7m5LNg82TzYvNm82HzZfNr4Jdxf7DrmHXsRvYTewWdhu7g93F7mH3sQfYQ+wR9hh7gj3FnmHPsUXsBbaCvcTWsVfYFvYa28HeYbvYB2wf+4wdYl+wE+wrdo59xy6xH9hP7Bf2G/uD/cX+VbCqWH9YNaw6VgOridXCamN1sLpYPaw+1gBriDXCGmNNsKZYM6w5loi1wFKwllg61grLwlpjOVg7LBfrgOVjnbFCrAtWgnXFyrHuWCXWA+uJ9cJ6Y32wvli/CmYV8w+zhlnHbGA2MVuYbcwOZhezh9nHHGAOMUeYY8wJ5hRzhjnHFDEXmArmElPHXGFamGtMB3OH6WIeMH3MM2aIecFMMK+YOeYds8R8YD4xX5hvzA/mF/NXwahi/GHUMOoYDYwmRgujjdHB6GL0MPoYA4whxghjjDHBmGLMMOYYIsYCQ8FYYugYKwwLY43hYOwwXIwDho9xxggxLhgJxhUjx7hjlBgPjCfGC+ON8cH4Yvwq6FX0P/Qaeh29gd5Eb6G30TvoXfQeeh99gD5EH6GP0SfoU/QZ+hxdRF+gK+hLdB19hW6hr9Ed9B26i35A99HP6CH6BT1Bv6Ln6Hf0Ev2B/kR/ob/RP+hf9F8FrYr2h1ZDq6M10JpoLbQ2Wgeti9ZD66MN0IZoI7Qx2gRtijZDm6OJaAs0BW2JpqOt0Cy0NZqDtkNz0Q5oPtoZLUS7oCVoV7Qc7Y5Woj3QnmgvtDfaB+2L9qugVlH/UGuoddQGahO1hdpG7aB2UXuofdQB6hB1hDpGnaBOUWeoc1QRdYGqoC5RddQVqoW6RnVQd6gu6gHVRz2jhqgX1AT1ipqj3lFL1AfqE/WF+kb9oH5RfxWUKsofSg2ljtJAaaK0UNooHZQuSg+ljzJAGaKMUMYoE5QpygxljiKiLFAUlCWKjrJCsVDWKA7KDsVFOaD4KGeUEOWCkqBcUXKUO0qJ8kB5orxQ3igflC/Kr4JcRf5DriHXkRvITeQWchu5g9xF7iH3kQfIQ+QR8hh5gjxFniHPkUXkBbKCvETWkVfIFvIa2UHeIbvIB2Qf+YwcIl+QE+Qrco58Ry6RH8hP5BfyG/mD/EX+VZCqSH9INaQ6UgOpidRCaiN1kLpIPaQ+0gBpiDRCGiNNkKZIM6Q5koi0QFKQlkg60grJQlojOUg7JBfpgOQjnZFCpAtSgnRFypHuSCXSA+mJ9EJ6I32Qvki/CmIV8Q+xhlhHbCA2EVuIbcQOYhexh9hHHCAOEUeIY8QJ4hRxhjhHFBEXiAriElFHXCFaiGtEB3GH6CIeEH3EM2KIeEFMEK+IOeIdsUR8ID4RX4hvxA/iF/FXQagi/CHUEOoIDYQmQguhjdBB6CL0EPoIA4QhwghhjDBBmCLMEOYIIsICQUFYIugIKwQLYY3gIOwQXIQDgo9wRggRLggJwhUhR7gjlAgPhCfCC+GN8EH4Ivz+AdqEAaYFoaLkAAAAAElFTkSuQmCC',
  'base64',
);

let browser: Browser;
beforeAll(async () => {
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

describe('email conversations in the dashboard', () => {
  it('shows an email with its attachment, filters by channel, and emails the reply', async () => {
    const email = newEmail('agent');
    const token = await tokenForEmail(email);
    expect(
      (await api('POST', '/api/v1/admin/auth/onboard', { token, body: { tenantName: 'Mail Order Shop' } })).status,
    ).toBe(201);
    const address = (await api('GET', '/api/v1/admin/settings', { token })).body.config.email.inboundAddress as string;
    await api('POST', '/api/v1/chat/message', {
      widgetKey: (await api('POST', '/api/v1/admin/settings/widget-key', { token })).body.widgetKey,
      body: { message: 'hello from the widget' },
    });
    await smtp().sendMail({
      from: 'Ann Customer <ann@customer.example>',
      to: address,
      subject: 'My lamp arrived broken',
      text: 'Hello,\nthe lamp I ordered arrived with a cracked shade. Photo attached.\n\nOn Mon, 1 Jan 2026, Shop wrote:\n> Your order has shipped',
      attachments: [{ filename: 'lamp.png', content: PNG, contentType: 'image/png' }],
    });

    const { context, page } = await newDashboardPage(browser);
    try {
      await signIn(page, email);
      await page.getByRole('link', { name: 'Inbox' }).click();
      const row = page.getByRole('link', { name: /Email: My lamp arrived broken/ });
      await row.waitFor();
      // The channel filter: email only, then the widget's only.
      await page.getByLabel('Channel').selectOption('email');
      await row.waitFor();
      // The row was there before the filter: wait for the filtered page rather than read the old one.
      await eventually(async () => expect(await page.getByRole('link', { name: /Visitor \d+/ }).count()).toBe(0));
      await row.click();
      await page.getByRole('heading', { level: 2, name: 'My lamp arrived broken' }).waitFor();
      await page.locator('.msg-text', { hasText: 'the lamp I ordered arrived with a cracked shade' }).waitFor();
      await expect(page.getByText('Your order has shipped').count()).resolves.toBe(0);
      const image = page.getByRole('img', { name: 'lamp.png' });
      await image.waitFor();
      await eventually(async () =>
        expect(await image.evaluate((i: HTMLImageElement) => i.complete && i.naturalWidth)).toBe(48),
      );
      await page.getByText(/Emailed as you to ann@customer\.example/).waitFor();
      await page.getByLabel('Reply to the customer').fill('Sorry about that! A new lamp is on its way.');
      await page.getByRole('button', { name: 'Send reply' }).click();
      // A member's first reply asks for the name customers read (here, in the email's From).
      await page.getByRole('button', { name: 'Save the name and send' }).click();
      await page.getByText(/^Email (being sent|sent|delivered)$/).waitFor();
      // The delivery status moves with SES's events, which push nothing to the dashboard: read again.
      await eventually(
        async () => {
          await page.reload();
          await page.locator('.msg-agent').waitFor();
          expect(await page.getByText('Email delivered').count()).toBe(1);
        },
        { timeout: 15_000, interval: 500 },
      );
      await captureWidths(page, 'email-inbox', 'Inbox');

      await page.getByLabel('Channel').selectOption('widget');
      await page.getByRole('link', { name: /Visitor \d+/ }).waitFor();
      await expect(page.getByRole('link', { name: /Email: / }).count()).resolves.toBe(0);

      await page.getByRole('link', { name: 'Settings' }).click();
      await page.locator('.inbound-address code', { hasText: address }).waitFor();
      await page.getByRole('heading', { name: 'Forward your support mailbox here' }).waitFor();
      await captureWidths(page, 'email-settings', 'Settings');
    } finally {
      await context.close();
    }
  });
});
